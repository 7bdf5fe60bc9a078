import { InvalidArgumentError, InvalidSubjectError } from '@nats-io/transport-node';

/** JetStream answered a publish with an API error instead of an acknowledgement. */
export class PublishRefusedError extends Error {
  override readonly name = 'PublishRefusedError';
  constructor(
    readonly description: string,
    /** JetStream's `err_code` (e.g. 10054), or the status code when there is none. */
    readonly code: number | undefined,
  ) {
    super(`JetStream refused the publish: ${description} (${code ?? 'no code'})`);
  }
}

/**
 * Nobody answered the publish: no stream listens on the subject (it may have been lost with the
 * broker's store, or deleted), or JetStream is not running.
 */
export class NoStreamAnsweredError extends Error {
  override readonly name = 'NoStreamAnsweredError';
  constructor() {
    super('JetStream did not answer the publish (no stream for this subject, or JetStream is down)');
  }
}

/**
 * JetStream's error codes about the message itself, which the same message gets every time:
 * 10054 message bigger than the stream's max_msg_size, 10097 headers bigger than allowed.
 */
const MESSAGE_ERROR_CODES = new Set([10054, 10097]);
/** The same said in words, for servers that send a description only. */
const MESSAGE_ERROR_TEXT = /exceeds maximum|too (large|big)|invalid message/i;

/**
 * True when publishing the same message again cannot succeed, whatever NATS's state: the client
 * refused it before sending (over the server's max_payload, a subject that cannot be one), or
 * JetStream refused the message itself. Disconnects, timeouts, a missing stream, a stream out of
 * resources are not: they mend with time or an operator, and the row waits for them.
 */
export function isPermanentPublishFailure(error: unknown): boolean {
  // nats.js checks the size against the connected server's max_payload and throws this at once.
  if (error instanceof InvalidArgumentError || error instanceof InvalidSubjectError) return true;
  if (error instanceof PublishRefusedError)
    return (
      (error.code !== undefined && MESSAGE_ERROR_CODES.has(error.code)) || MESSAGE_ERROR_TEXT.test(error.description)
    );
  return false;
}
