import { describe, expect, it } from 'vitest';
import { announcementOf } from './collab-room';

describe('announcementOf: the collaboration server’s “changed” messages', () => {
  it('reads the two announcements and nothing else', () => {
    expect(announcementOf('{"type":"changed","what":"comments"}')).toBe('comments');
    expect(announcementOf('{"type":"changed","what":"document"}')).toBe('document');
    expect(announcementOf('{"type":"changed","what":"content"}')).toBeNull();
    expect(announcementOf('{"type":"access","access":"read-only"}')).toBeNull();
    expect(announcementOf('not json')).toBeNull();
    expect(announcementOf('null')).toBeNull();
  });
});
