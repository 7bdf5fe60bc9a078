import { describe, expect, it } from 'vitest';
import { catalogueFor } from './catalogue.js';

describe('catalogueFor', () => {
  it('picks German by language, region or not, and English for anything else', () => {
    expect(catalogueFor('de').lang).toBe('de');
    expect(catalogueFor('de-AT').lang).toBe('de');
    expect(catalogueFor('DE_ch').lang).toBe('de');
    for (const other of ['en-GB', 'fr', '', null, undefined]) expect(catalogueFor(other).lang).toBe('en');
  });

  it('words every notification type in both languages', () => {
    const names = { actor: 'Ada', document: 'Plans', workspace: 'Team', role: 'EDITOR' };
    for (const lang of ['en', 'de']) {
      const c = catalogueFor(lang);
      for (const type of ['COMMENT_MENTION', 'DOCUMENT_UPDATED', 'MEMBER_ROLE_CHANGED', 'WEBHOOK_DISABLED'] as const) {
        const { subject, line } = c.notification(type, names);
        expect(subject.length).toBeGreaterThan(0);
        expect(line.length).toBeGreaterThan(0);
      }
    }
    expect(catalogueFor('de').notification('MEMBER_ROLE_CHANGED', names).line).toBe(
      'Ihre Rolle in „Team“ ist jetzt Bearbeiter.',
    );
  });
});
