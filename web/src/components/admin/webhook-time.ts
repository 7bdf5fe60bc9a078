/** Times in the Webhooks section: day and minute, in the reader's locale. */
export const webhookTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
