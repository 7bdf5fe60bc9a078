import { capText, capUnderPayload, EventTooLargeError, serializeWithinCap, splitIds } from './limits.js';

describe('capText', () => {
  it('leaves a text within the cap as it is', () => {
    expect(capText('héllo', 6)).toEqual({ text: 'héllo', truncated: false });
  });

  it('cuts at the cap in UTF-8 bytes and says so', () => {
    const { text, truncated } = capText('a'.repeat(100), 10);
    expect(text).toBe('a'.repeat(10));
    expect(truncated).toBe(true);
  });

  it('never splits a character: a 2-byte letter straddling the cap is left out whole', () => {
    // "aé" is 3 bytes (é = C3 A9): a cap of 2 falls inside é.
    expect(capText('aéz', 2)).toEqual({ text: 'a', truncated: true });
  });

  it('never splits a surrogate pair (a 4-byte character) at any cut point', () => {
    const text = `ab${'😀'.repeat(50)}`;
    for (let cap = 2; cap < 30; cap++) {
      const cut = capText(text, cap);
      expect(cut.truncated).toBe(true);
      expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(cap);
      expect(text.startsWith(cut.text)).toBe(true);
      // A lone high surrogate at the end would mean the pair was split.
      expect(cut.text.charCodeAt(cut.text.length - 1)).not.toBe(0xd83d);
      expect(Buffer.byteLength(cut.text)).toBe(2 + 4 * Math.floor((cap - 2) / 4));
    }
  });

  it('cuts 2 MiB of mixed text to at most 64 KiB by default, on a boundary', () => {
    const text = 'Grüße 😀 文字 '.repeat(120_000);
    const cut = capText(text);
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(64 * 1024);
    expect(Buffer.byteLength(cut.text)).toBeGreaterThan(64 * 1024 - 4);
    expect(text.startsWith(cut.text)).toBe(true);
  });
});

describe('splitIds', () => {
  it('keeps a short list in one piece, a long one in pieces of the size, in order', () => {
    expect(splitIds(['a'], 2)).toEqual([['a']]);
    expect(splitIds(['a', 'b', 'c', 'd', 'e'], 2)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    const ids = Array.from({ length: 30_000 }, (_, i) => String(i));
    const pieces = splitIds(ids);
    expect(pieces).toHaveLength(30);
    expect(pieces.every((p) => p.length === 1000)).toBe(true);
    expect(pieces.flat()).toEqual(ids);
  });
});

describe('serializeWithinCap', () => {
  const envelopeOf = (data: string) => ({ type: 't.x', data });

  it('returns the JSON of an envelope within the cap and refuses one over it, in UTF-8 bytes', () => {
    expect(serializeWithinCap(envelopeOf('abc'), 100)).toBe('{"type":"t.x","data":"abc"}');
    // 30 characters but 90 bytes: over a cap of 80.
    const error = (() => {
      try {
        serializeWithinCap(envelopeOf('文'.repeat(30)), 80);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(EventTooLargeError);
    expect(error).toMatchObject({ type: 't.x', maxBytes: 80, statusCode: 413 });
  });
});

describe('capUnderPayload', () => {
  it('keeps the configured cap under a roomy server, lowers it under a small max_payload', () => {
    expect(capUnderPayload(256 * 1024, 1024 * 1024)).toBe(256 * 1024);
    expect(capUnderPayload(256 * 1024, undefined)).toBe(256 * 1024);
    const lowered = capUnderPayload(256 * 1024, 128 * 1024);
    expect(lowered).toBeLessThan(128 * 1024);
    // jsonb's text (a space after every ':' and ',') of the worst case still fits the server.
    expect(lowered * 1.5 + 4096).toBeLessThanOrEqual(128 * 1024);
  });
});

describe('capText counts what the text costs in JSON', () => {
  it('cuts a text of control characters so that its escaped form fits the cap', () => {
    // 50,000 characters: 50 KB of UTF-8, but 300 KB as JSON (each is \u0001).
    const text = '\u0001'.repeat(50_000);
    const cut = capText(text, 64 * 1024);
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(cut.text)) - 2).toBeLessThanOrEqual(64 * 1024);
    expect(text.startsWith(cut.text)).toBe(true);
    expect(cut.text.length).toBeGreaterThan((64 * 1024) / 6 - 6);
  });

  it('cuts mixed quotes, newlines and emoji to the cap in JSON, on a character boundary', () => {
    const text = 'say "hi"\n😀\\'.repeat(20_000);
    const cut = capText(text, 1000);
    expect(cut.truncated).toBe(true);
    const escaped = Buffer.byteLength(JSON.stringify(cut.text)) - 2;
    expect(escaped).toBeLessThanOrEqual(1000);
    expect(escaped).toBeGreaterThan(990);
    expect(text.startsWith(cut.text)).toBe(true);
    expect(cut.text.charCodeAt(cut.text.length - 1)).not.toBe(0xd83d);
  });
});
