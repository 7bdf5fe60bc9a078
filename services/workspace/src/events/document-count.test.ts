import { testEvent } from '@wiki/testing';
import { documentIdsOf } from './document-count.js';

const a = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const b = '3f2c1a4e-5b6d-4c7e-8f90-a1b2c3d4e5f6';

describe('documentIdsOf', () => {
  it('takes data.ids of a subtree or cascade, once each, and the id of a creation', () => {
    expect(documentIdsOf(testEvent('document.created', { data: { id: a } }))).toEqual([a]);
    expect(documentIdsOf(testEvent('document.deleted', { data: { id: a, ids: [a, b, a] } }))).toEqual([a, b]);
    expect(documentIdsOf(testEvent('document.archived', { data: { id: a } }))).toEqual([a]);
  });
});
