import { envelope, listOf, nullable, object, Type, timestamp, uuid } from '@wiki/http';

export const attachmentResponse = object(
  {
    id: uuid,
    documentId: uuid,
    fileName: Type.String(),
    fileSize: Type.Integer(),
    mimeType: Type.String(),
    url: Type.String(),
    width: nullable(Type.Integer()),
    height: nullable(Type.Integer()),
    createdAt: timestamp,
  },
  ['id', 'documentId', 'fileName', 'fileSize', 'mimeType', 'url', 'width', 'height', 'createdAt'],
);

export const oneAttachment = envelope(attachmentResponse);
export const attachmentList = listOf(attachmentResponse);

/** The key as the spec names it (`url`); its shape is checked against the records, not here. */
export const fileQuery = object({ url: Type.String({ minLength: 1, maxLength: 1024 }) }, ['url']);
