import { ClosedConnectionError, InvalidArgumentError, TimeoutError } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { isPermanentPublishFailure, NoStreamAnsweredError, PublishRefusedError } from './publish-failure.js';

describe('isPermanentPublishFailure', () => {
  it('is true for what the same message meets every time', () => {
    expect(isPermanentPublishFailure(InvalidArgumentError.format('payload', 'max_payload size exceeded'))).toBe(true);
    expect(isPermanentPublishFailure(new PublishRefusedError('message size exceeds maximum allowed', 10054))).toBe(
      true,
    );
    expect(
      isPermanentPublishFailure(new PublishRefusedError('header size exceeds maximum allowed of 64k', 10097)),
    ).toBe(true);
  });

  it('is false for what mends with time or an operator', () => {
    expect(isPermanentPublishFailure(new NoStreamAnsweredError())).toBe(false);
    expect(isPermanentPublishFailure(new PublishRefusedError('insufficient resources', 10023))).toBe(false);
    expect(isPermanentPublishFailure(new PublishRefusedError('maximum messages exceeded', 10077))).toBe(false);
    expect(isPermanentPublishFailure(new ClosedConnectionError())).toBe(false);
    expect(isPermanentPublishFailure(new TimeoutError())).toBe(false);
    expect(isPermanentPublishFailure(new Error('JetStream did not acknowledge the publish within 5000 ms'))).toBe(
      false,
    );
  });
});
