import { nullable, nullableTimestamp, object, stringEnum, Type, timestamp, uuid } from '@wiki/http';
import { JOB_KINDS, JOB_STATUSES, type JobRow } from '../db/jobs.js';

/** JobResponse (ARCHITECTURE 5.19). */
export const jobSchema = object({
  id: uuid,
  kind: stringEnum(JOB_KINDS),
  status: stringEnum(JOB_STATUSES),
  progress: object({ done: Type.Integer({ minimum: 0 }), total: Type.Integer({ minimum: 0 }) }),
  result: nullable(
    Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: true,
      description: 'Once done: an export has downloadUrl, expiresAt, fileName, bytes, documentCount',
    }),
  ),
  error: nullable(Type.String()),
  workspaceId: uuid,
  createdAt: timestamp,
  updatedAt: timestamp,
  finishedAt: nullableTimestamp,
});

export function presentJob(row: JobRow) {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    progress: { done: row.progressDone, total: row.progressTotal },
    result: row.result,
    error: row.error,
    workspaceId: row.workspaceId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    finishedAt: row.finishedAt,
  };
}
