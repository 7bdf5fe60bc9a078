-- Up Migration

-- The comment service owns comment_threads; this service's copy of their open state (fed by
-- comment.thread_*) is named as a projection, so that nobody takes one for the other.
ALTER TABLE comment_threads RENAME TO comment_thread_projection;
ALTER INDEX comment_threads_pkey RENAME TO comment_thread_projection_pkey;
ALTER INDEX comment_threads_open_idx RENAME TO comment_thread_projection_open_idx;
ALTER INDEX comment_threads_document_idx RENAME TO comment_thread_projection_document_idx;
ALTER TABLE comment_thread_projection
  RENAME CONSTRAINT comment_threads_deleted_not_open TO comment_thread_projection_deleted_not_open;

-- Down Migration
ALTER TABLE comment_thread_projection
  RENAME CONSTRAINT comment_thread_projection_deleted_not_open TO comment_threads_deleted_not_open;
ALTER INDEX comment_thread_projection_document_idx RENAME TO comment_threads_document_idx;
ALTER INDEX comment_thread_projection_open_idx RENAME TO comment_threads_open_idx;
ALTER INDEX comment_thread_projection_pkey RENAME TO comment_threads_pkey;
ALTER TABLE comment_thread_projection RENAME TO comment_threads;
