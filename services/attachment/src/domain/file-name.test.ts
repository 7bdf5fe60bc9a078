import { contentDisposition, displayName, isWellFormedKey, keySafeName, storageKeyOf } from './file-name.js';

const ws = '0b6c4a2e-4c8e-4a57-9d7e-1f0f3c0b9a11';
const doc = '5f1d7d2a-0e4b-4a3c-8f0e-9b2c1a4d6e22';
const id = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c33';

describe('file names', () => {
  it('keeps what was sent but folders, control characters and bidi overrides', () => {
    expect(displayName('C:\\Users\\ada\\Résumé 2026.pdf')).toBe('Résumé 2026.pdf');
    expect(displayName('../../etc/passwd')).toBe('passwd');
    expect(displayName('evil\u202Efdp.exe')).toBe('evilfdp.exe');
    expect(displayName('a\u0000b\nc.txt')).toBe('abc.txt');
    expect(displayName('..')).toBe('file');
    expect(displayName(undefined)).toBe('file');
    expect([...displayName('x'.repeat(400))].length).toBe(255);
  });

  it('makes a key segment of ASCII letters, digits, dot, dash and underscore only', () => {
    expect(keySafeName('Résumé 2026.pdf')).toBe('Resume_2026.pdf');
    expect(keySafeName('.htaccess')).toBe('htaccess');
    expect(keySafeName('世界.png')).toBe('png');
    expect(keySafeName('???')).toBe('file');
    const long = keySafeName(`${'a'.repeat(300)}.jpeg`);
    expect(long.length).toBe(100);
    expect(long.endsWith('.jpeg')).toBe(true);
  });

  it('keys have the shape of ARCHITECTURE 5.9, and only such keys are well-formed', () => {
    const key = storageKeyOf(ws, doc, id, 'My photo.png');
    expect(key).toBe(`workspaces/${ws}/documents/${doc}/${id}/My_photo.png`);
    expect(isWellFormedKey(key)).toBe(true);
    for (const bad of [
      `workspaces/${ws}/documents/${doc}/${id}/../x.png`,
      `workspaces/${ws}/documents/${doc}/../${id}/x.png`,
      `/workspaces/${ws}/documents/${doc}/${id}/x.png`,
      `workspaces/${ws}/documents/${doc}/${id}/x.png/`,
      `workspaces/${ws}/documents/${doc}/${id}/%2e%2e`,
      '../../etc/passwd',
      '/etc/passwd',
    ]) {
      expect(isWellFormedKey(bad), bad).toBe(false);
    }
  });

  it('Content-Disposition carries an ASCII fallback and the UTF-8 name (RFC 5987)', () => {
    expect(contentDisposition('attachment', 'Résumé "final".pdf')).toBe(
      `attachment; filename="R_sum_ _final_.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22.pdf`,
    );
    expect(contentDisposition('inline', "it's (1).png")).toBe(
      `inline; filename="it's (1).png"; filename*=UTF-8''it%27s%20%281%29.png`,
    );
  });
});
