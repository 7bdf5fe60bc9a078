import { isMcpKeyShaped } from '@wiki/auth';
import { newMcpKey } from './mcp-keys.js';

describe('MCP keys', () => {
  it('have the shape the gateway accepts without a lookup (anything else it refuses unasked)', () => {
    for (let i = 0; i < 200; i++) expect(isMcpKeyShaped(newMcpKey().key)).toBe(true);
    expect(isMcpKeyShaped(`${newMcpKey().key}x`)).toBe(false);
    expect(isMcpKeyShaped('wmk_short')).toBe(false);
  });
});
