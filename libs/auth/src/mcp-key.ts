/** Marks a string as a wiki MCP key (helps secret scanners and humans recognise a leaked one). */
export const MCP_KEY_PREFIX = 'wmk_';
/** Random bytes in a key, written after the prefix in base64url (43 characters). */
export const MCP_KEY_BYTES = 32;

const MCP_KEY_SHAPE = /^wmk_[A-Za-z0-9_-]{43}$/;

/**
 * Whether a string has the shape of every MCP key ever issued: the gateway refuses anything else
 * without asking the workspace service.
 */
export function isMcpKeyShaped(key: string): boolean {
  return MCP_KEY_SHAPE.test(key);
}
