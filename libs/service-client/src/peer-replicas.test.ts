import type { Config } from '@wiki/config';
import { isConnectError, mayRetryElsewhere, PeerReplicas } from './peer-replicas.js';

const A = 'http://10.0.0.1:8081';
const B = 'http://10.0.0.2:8081';
const C = 'http://10.0.0.3:8081';

function replicasOf(origins: string[], backoffMs = 60_000) {
  const config = {
    urls: { workspace: origins[0] } as Config['urls'],
    replicaUrls: { workspace: origins } as Config['replicaUrls'],
  };
  return { config, replicas: new PeerReplicas(config, backoffMs) };
}

describe('PeerReplicas', () => {
  it('goes round robin', () => {
    const { replicas } = replicasOf([A, B, C]);
    expect([1, 2, 3, 4].map(() => replicas.pick('workspace'))).toEqual([A, B, C, A]);
  });

  it('passes over a replica that refused, until its back-off ends', async () => {
    const { replicas } = replicasOf([A, B, C], 50);
    replicas.refused(B);
    expect([1, 2, 3, 4].map(() => replicas.pick('workspace'))).toEqual([A, C, A, C]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect([1, 2, 3].map(() => replicas.pick('workspace'))).toEqual([A, B, C]);
  });

  it('still picks a refused replica when every other one refused too, never the one excluded', () => {
    const { replicas } = replicasOf([A, B]);
    replicas.refused(A);
    replicas.refused(B);
    expect(replicas.pick('workspace')).toBeDefined();
    expect(replicas.pick('workspace', A)).toBe(B);
    expect(replicas.pick('workspace', B)).toBe(A);
  });

  it('with one URL always uses it, and follows a URL set after it was built', () => {
    const { config, replicas } = replicasOf([A]);
    expect(replicas.pick('workspace')).toBe(A);
    expect(replicas.pick('workspace', A)).toBeUndefined();
    config.urls.workspace = C;
    expect(replicas.pick('workspace')).toBe(C);
    // A URL set over a list of replicas wins over the list.
    const listed = replicasOf([A, B]);
    listed.config.urls.workspace = C;
    expect([1, 2].map(() => listed.replicas.pick('workspace'))).toEqual([C, C]);
  });
});

describe('which failures may go to another replica', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
  const timeout = Object.assign(new Error('aborted'), { name: 'TimeoutError', code: 23 });

  it('a refused connection for any method; a lost one only for GET and HEAD; a timeout never', () => {
    expect(isConnectError(new TypeError('fetch failed', { cause: refused }))).toBe(true);
    expect(mayRetryElsewhere('POST', refused)).toBe(true);
    expect(mayRetryElsewhere('GET', reset)).toBe(true);
    expect(mayRetryElsewhere('HEAD', reset)).toBe(true);
    expect(mayRetryElsewhere('POST', reset)).toBe(false);
    expect(mayRetryElsewhere('GET', timeout)).toBe(false);
  });
});
