/**
 * A file the import will not take at all (ARCHITECTURE 5.19): nothing of it is planned, so nothing
 * is created. The message names the archive entry at fault where there is one.
 */
export class ImportRefusedError extends Error {
  readonly code = 'IMPORT_REFUSED';

  constructor(
    message: string,
    /** The archive entry (or file) the refusal is about, when it is about one. */
    readonly entry?: string,
  ) {
    super(message);
    this.name = 'ImportRefusedError';
  }
}
