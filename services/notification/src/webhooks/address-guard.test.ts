import { describe, expect, it } from 'vitest';
import { addressProblem, checkTarget, TargetRefusedError, urlFormProblem } from './address-guard.js';

describe('webhook address guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.100.100.200',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '2002:7f00:1::1',
  ])('refuses %s', (address) => {
    expect(addressProblem(address)).not.toBeNull();
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111'])('takes %s', (address) => {
    expect(addressProblem(address)).toBeNull();
  });

  it('refuses other schemes, credentials and overlong URLs', () => {
    expect(urlFormProblem('ftp://example.com/x')).toMatch(/http/);
    expect(urlFormProblem('https://user:pw@example.com/x')).toMatch(/credentials/);
    expect(urlFormProblem(`https://example.com/${'a'.repeat(2100)}`)).toMatch(/2048/);
    expect(urlFormProblem('not a url')).toMatch(/absolute/);
    expect(urlFormProblem('https://example.com/hook?x=1')).toBeNull();
  });

  it('checks every address a name resolves to and pins the first; the allow-list skips the check', async () => {
    const resolve = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    await expect(checkTarget('https://mixed.example/h', [], resolve)).rejects.toThrow(TargetRefusedError);
    const allowed = await checkTarget('https://mixed.example/h', ['mixed.example'], resolve);
    expect(allowed).toMatchObject({ address: '93.184.215.14', family: 4 });
    await expect(checkTarget('http://[::1]:8080/h', [])).rejects.toThrow(/loopback/);
    expect((await checkTarget('http://[::1]:8080/h', ['::1'])).family).toBe(6);
    await expect(checkTarget('http://2130706433/h', [])).rejects.toThrow(/loopback/);
    await expect(checkTarget('http://localhost:1/h', [])).rejects.toThrow(/loopback/);
    await expect(checkTarget('http://no-such-host.invalid/h', [])).rejects.toThrow(/does not resolve/);
  });
});
