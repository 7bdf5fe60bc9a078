// Files in the editor (issue 28 point 4): BlockNote's uploadFile and resolveFileUrl hooks.
// A block stores the file's stable address (`/api/v1/attachments/file?url=<key>`); the browser
// shows it from an object URL of the file fetched with the person's token, never a public link.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { attachmentKeyOf, fileBlob, uploadAttachment, uploadErrorMessage } from '../api/attachments';
import type { ApiClient } from '../api/client';
import { attachmentKeys } from '../api/queries';
import { useApi } from '../auth/AuthContext';

/** The widest an image is shown at first (the text column); people may resize it. */
const MAX_PREVIEW_WIDTH = 640;

/** Object URLs per file address, made once and revoked together. */
export class FileUrlCache {
  private readonly urls = new Map<string, Promise<string>>();
  private readonly made = new Set<string>();

  constructor(private readonly fetchBlob: (key: string) => Promise<Blob>) {}

  /** An object URL for an attachment address; any other address (https images) as it is. */
  resolve = (url: string): Promise<string> => {
    const key = attachmentKeyOf(url);
    if (key === null) return Promise.resolve(url);
    let pending = this.urls.get(url);
    if (!pending) {
      pending = this.fetchBlob(key).then((blob) => {
        const objectUrl = URL.createObjectURL(blob);
        this.made.add(objectUrl);
        return objectUrl;
      });
      // A failed fetch is asked again next time (the file may come back, the network too).
      pending.catch(() => this.urls.delete(url));
      this.urls.set(url, pending);
    }
    return pending;
  };

  /** Revokes every object URL made so far; the cache stays usable. */
  clear(): void {
    for (const objectUrl of this.made) URL.revokeObjectURL(objectUrl);
    this.made.clear();
    this.urls.clear();
  }
}

/** A resolver for BlockNote's resolveFileUrl, whose object URLs are revoked on unmount. */
export function useFileUrls(api: ApiClient, anonymous = false): (url: string) => Promise<string> {
  const [cache] = useState(() => new FileUrlCache((key) => fileBlob(api, key, anonymous)));
  useEffect(() => () => cache.clear(), [cache]);
  return cache.resolve;
}

export interface UploadState {
  id: number;
  fileName: string;
  /** 0 to 100. */
  percent: number;
  error: string | null;
}

interface UploadIds {
  workspaceId: string;
  documentId: string;
}

let nextUploadId = 1;

/**
 * BlockNote's uploadFile for a document, and what the uploads are doing (for a status line). A
 * file becomes an attachment of the document; an image keeps its natural width (up to the column).
 */
export function useFileUploads(ids: UploadIds) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [uploads, setUploads] = useState<UploadState[]>([]);
  const idsRef = useRef(ids);
  idsRef.current = ids;

  const change = useCallback((id: number, patch: Partial<UploadState> | null) => {
    setUploads((all) =>
      patch === null ? all.filter((u) => u.id !== id) : all.map((u) => (u.id === id ? { ...u, ...patch } : u)),
    );
  }, []);

  const uploadFile = useCallback(
    async (file: File) => {
      const id = nextUploadId++;
      setUploads((all) => [...all, { id, fileName: file.name, percent: 0, error: null }]);
      try {
        const attachment = await uploadAttachment(api, idsRef.current, file, {
          onProgress: (fraction) => change(id, { percent: Math.round(fraction * 100) }),
        });
        change(id, null);
        void queryClient.invalidateQueries({ queryKey: attachmentKeys.list(idsRef.current.documentId) });
        const props: Record<string, unknown> = { name: attachment.fileName, url: attachment.url };
        if (attachment.width) props.previewWidth = Math.min(attachment.width, MAX_PREVIEW_WIDTH);
        return { props };
      } catch (error) {
        change(id, { error: uploadErrorMessage(error, file.name) });
        throw error;
      }
    },
    [api, change, queryClient],
  );

  const dismiss = useCallback((id: number) => change(id, null), [change]);
  return { uploadFile, uploads, dismiss };
}
