import TypeBox from 'typebox';
import * as Type from './type.js';

/** The JSON, and every own key (hidden ones too) with its value and enumerability, in order. */
function shape(schema: object): unknown {
  return {
    json: JSON.stringify(schema),
    keys: Reflect.ownKeys(schema).map((key) => {
      const { value, enumerable } = Object.getOwnPropertyDescriptor(schema, key) as PropertyDescriptor;
      return [key, typeof value === 'object' && value !== null ? JSON.stringify(value) : value, enumerable];
    }),
  };
}

// Type stands in for TypeBox's builders at run time: each must build the object TypeBox builds.
describe('Type', () => {
  it('builds what TypeBox builds', () => {
    const pairs: [object, object][] = [
      [Type.String(), TypeBox.String()],
      [Type.String({ format: 'uuid', minLength: 1 }), TypeBox.String({ format: 'uuid', minLength: 1 })],
      [Type.Boolean(), TypeBox.Boolean()],
      [Type.Boolean({ description: 'd' }), TypeBox.Boolean({ description: 'd' })],
      [Type.Integer(), TypeBox.Integer()],
      [Type.Integer({ minimum: 1, maximum: 9 }), TypeBox.Integer({ minimum: 1, maximum: 9 })],
      [Type.Array(Type.String()), TypeBox.Array(TypeBox.String())],
      [Type.Array(Type.Integer(), { maxItems: 3 }), TypeBox.Array(TypeBox.Integer(), { maxItems: 3 })],
      [Type.Union([Type.String(), Type.Integer()]), TypeBox.Union([TypeBox.String(), TypeBox.Integer()])],
      [Type.Union([Type.String()], { description: 'u' }), TypeBox.Union([TypeBox.String()], { description: 'u' })],
      [Type.Ref('Node#'), TypeBox.Ref('Node#')],
      [Type.Ref('Node#', { description: 'r' }), TypeBox.Ref('Node#', { description: 'r' })],
      [Type.Unknown(), TypeBox.Unknown()],
      [Type.Unknown({ description: 'any' }), TypeBox.Unknown({ description: 'any' })],
      [Type.Unsafe({ type: 'string', enum: ['a'] }), TypeBox.Unsafe({ type: 'string', enum: ['a'] })],
      [Type.Unsafe(Type.String({ format: 'uuid' })), TypeBox.Unsafe(TypeBox.String({ format: 'uuid' }))],
      [Type.Unsafe(Type.Unsafe(Type.Boolean())), TypeBox.Unsafe(TypeBox.Unsafe(TypeBox.Boolean()))],
    ];
    for (const [ours, theirs] of pairs) expect(shape(ours)).toEqual(shape(theirs));
  });

  it('leaves the schema it copies alone', () => {
    const schema = Type.String();
    expect(Type.Unsafe<string>(schema)).not.toBe(schema);
    expect(Reflect.ownKeys(schema)).toEqual(['type', '~kind']);
  });
});
