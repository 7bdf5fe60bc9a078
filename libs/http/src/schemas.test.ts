import {
  type envelope,
  type idParams,
  type listOf,
  nullable,
  nullableUuid,
  object,
  type Static,
  stringEnum,
  uuid,
  voidEnvelope,
  withDefault,
} from './schemas.js';
import * as Type from './type.js';

// The builders write the JSON Schema the routes always had (ajv's messages and the OpenAPI
// description depend on it), while their TypeScript types carry the values they accept.
describe('schema builders', () => {
  it('write nullable values as a type list, not anyOf', () => {
    expect(JSON.stringify(nullableUuid)).toBe('{"type":["string","null"],"format":"uuid"}');
    expect(JSON.stringify(nullable(Type.String({ maxLength: 5 })))).toBe('{"type":["string","null"],"maxLength":5}');
    expectTypeOf<Static<typeof nullableUuid>>().toEqualTypeOf<string | null>();
  });

  it('write objects with their required list and no other properties', () => {
    const schema = object({ id: uuid, name: Type.String(), size: Type.Integer() }, ['id', 'name']);
    expect(JSON.stringify(schema)).toBe(
      '{"type":"object","properties":{"id":{"type":"string","format":"uuid"},"name":{"type":"string"},' +
        '"size":{"type":"integer"}},"required":["id","name"],"additionalProperties":false}',
    );
    expectTypeOf<Static<typeof schema>>().toEqualTypeOf<{ id: string; name: string; size?: number }>();
    expect(JSON.stringify(object({}))).toBe(
      '{"type":"object","properties":{},"required":[],"additionalProperties":false}',
    );
  });

  it('type a property with a default as always present', () => {
    const query = object({ status: withDefault(stringEnum(['all', 'open']), 'all') });
    expect(JSON.stringify(query)).toContain(
      '"properties":{"status":{"type":"string","enum":["all","open"],"default":"all"}}',
    );
    expectTypeOf<Static<typeof query>>().toEqualTypeOf<{ status: 'all' | 'open' }>();
  });

  it('type envelopes and path parameters', () => {
    expectTypeOf<Static<ReturnType<typeof idParams<'a' | 'b'>>>>().toEqualTypeOf<{ a: string; b: string }>();
    expectTypeOf<Static<ReturnType<typeof listOf<typeof uuid>>>>().toEqualTypeOf<{
      success: boolean;
      data: string[];
    }>();
    expectTypeOf<Static<ReturnType<typeof envelope<typeof uuid>>>>().toEqualTypeOf<{
      success: boolean;
      data: string;
    }>();
    expect(JSON.stringify(voidEnvelope)).toBe(
      '{"type":"object","properties":{"success":{"type":"boolean"}},"required":["success"]}',
    );
  });

  it('refuse to make a type list of a schema without a single type', () => {
    expect(() => nullable(Type.Union([Type.String(), Type.Integer()]))).toThrow(/one type/);
  });
});
