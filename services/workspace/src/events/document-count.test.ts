import { documentIdsOf } from './document-count.js';

const a = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const b = '3f2c1a4e-5b6d-4c7e-8f90-a1b2c3d4e5f6';

describe('documentIdsOf', () => {
  it('takes data.ids when given, else data.id, and drops junk and duplicates', () => {
    expect(documentIdsOf({ id: a })).toEqual([a]);
    expect(documentIdsOf({ id: a, ids: [a, b, a] })).toEqual([a, b]);
    expect(documentIdsOf({ ids: ['nope', 3, b] })).toEqual([b]);
    expect(documentIdsOf({})).toEqual([]);
  });
});
