import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from './content-security-policy.js';

const directives = (policy: string) =>
  Object.fromEntries(policy.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));

describe('content security policy', () => {
  it('allows scripts only from the origin and the given hashes', () => {
    const policy = directives(contentSecurityPolicy({ provider: 'dev' }, ['sha256-abc']));
    expect(policy['script-src']).toBe("'self' 'sha256-abc'");
    expect(policy['default-src']).toBe("'self'");
    expect(policy['object-src']).toBe("'none'");
    expect(policy['base-uri']).toBe("'self'");
    expect(policy['connect-src']).toBe("'self'");
    expect(policy['frame-src']).toBe("'none'");
    expect(policy['frame-ancestors']).toBe("'none'");
  });

  it("opens the OIDC issuer's origin (not its path) for network, frames and forms", () => {
    const policy = directives(
      contentSecurityPolicy({ provider: 'oidc', issuer: 'https://id.example.com:8443/realms/wiki' }),
    );
    expect(policy['connect-src']).toBe("'self' https://id.example.com:8443");
    expect(policy['frame-src']).toBe("'self' https://id.example.com:8443");
    expect(policy['form-action']).toBe("'self' https://id.example.com:8443");
    expect(policy['frame-ancestors']).toBe("'self'");
  });

  it('opens nothing for firebase', () => {
    const policy = directives(contentSecurityPolicy({ provider: 'firebase' }));
    expect(policy['connect-src']).toBe("'self'");
    expect(policy['frame-src']).toBe("'none'");
  });
});
