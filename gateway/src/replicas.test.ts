import type { Config } from '@wiki/config';
import { Replicas } from './replicas.js';

const a = 'http://127.0.0.1:1';
const b = 'http://127.0.0.1:2';
const config = { urls: { search: a }, replicaUrls: { search: [a, b] } } as unknown as Config;

describe('Replicas.pick with every replica out of rotation', () => {
  it('sends to one whose check was only slow rather than to one that said it is going', () => {
    const replicas = new Replicas(config);
    replicas.markDown('search', a, 'gone');
    replicas.markDown('search', b, 'slow');
    expect([replicas.pick('search'), replicas.pick('search'), replicas.pick('search')]).toEqual([b, b, b]);
  });

  it('still answers one when both said they are going (a failed attempt gives the 503 anyway)', () => {
    const replicas = new Replicas(config);
    replicas.markDown('search', a);
    replicas.markDown('search', b);
    expect([a, b]).toContain(replicas.pick('search'));
    expect(replicas.pick('search', a)).toBe(b);
  });

  it('a replica that said it is going stays gone when a later check only times out', () => {
    const replicas = new Replicas(config);
    replicas.markDown('search', b, 'gone');
    replicas.markDown('search', b, 'slow');
    replicas.markDown('search', a, 'slow');
    expect([replicas.pick('search'), replicas.pick('search')]).toEqual([a, a]);
  });
});
