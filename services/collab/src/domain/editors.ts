/** The most editors one save names (ARCHITECTURE 5.16: editorIdpUids holds at most 50). */
export const MAX_SAVE_EDITORS = 50;

/** The editors a save is about to name, each with the mark of their last edit then. */
export type EditorsSnapshot = ReadonlyArray<readonly [idpUid: string, mark: number]>;

/**
 * The users (idp uids) who edited a room since its last stored save, most recent last, at most
 * MAX_SAVE_EDITORS (the oldest drop out). A save names a snapshot; once stored, only the editors
 * who did not edit again meanwhile are forgotten, so an edit made during the save is named by the
 * next one.
 */
export class RecentEditors {
  private readonly marks = new Map<string, number>();
  private mark = 0;

  touch(idpUid: string): void {
    this.marks.delete(idpUid);
    this.marks.set(idpUid, ++this.mark);
    if (this.marks.size > MAX_SAVE_EDITORS) {
      const oldest = this.marks.keys().next().value;
      if (oldest !== undefined) this.marks.delete(oldest);
    }
  }

  snapshot(): EditorsSnapshot {
    return [...this.marks];
  }

  /** Forgets the snapshot's editors who have not edited since it was taken. */
  saved(snapshot: EditorsSnapshot): void {
    for (const [idpUid, mark] of snapshot) if (this.marks.get(idpUid) === mark) this.marks.delete(idpUid);
  }
}
