import { writeFileSync } from 'node:fs';
import {
  collabConverges,
  exportWorkersShareQueue,
  historyAcrossReplicas,
  invitationEmailJoins,
  mcpOnBothReplicas,
  mentionEmailedOnce,
  notificationStreamsOnBothReplicas,
  oneNotificationPerMention,
  relayKeepsOrder,
  watchedEditsDebounced,
  webhooksThroughOutage,
} from './replica-behaviours.js';
import { launchReplicaPlatform, type ReplicaPlatform } from './replica-platform.js';

/**
 * `npm run test:replicas`: every behaviour of issue 19 point 1, issue 26's history and issue 31's
 * e-mail, watching and webhooks, on one
 * platform that `npm start` launched at REPLICAS=2. Not part of `npm test`, which runs a subset on the launch of
 * start-replicas.test.ts (this file's suffix keeps it out of the default vitest projects).
 */
describe('every behaviour at two replicas, through the gateway', () => {
  let platform: ReplicaPlatform | undefined;

  beforeAll(async () => {
    platform = await launchReplicaPlatform();
  }, 150_000);
  afterAll(async () => {
    // The launcher's log (every replica's lines, prefixed with its name), to read after a failure.
    if (platform && process.env.REPLICAS_LOG) writeFileSync(process.env.REPLICAS_LOG, platform.launch.output());
    await platform?.stop();
  }, 30_000);

  it('1. one notification per mention', () => oneNotificationPerMention(platform!));
  it('2. the notification stream on either replica gets each notification once', () =>
    notificationStreamsOnBothReplicas(platform!));
  // Longer than the MCP SDK's own 60 s request timeout, so that an answer lost between the
  // replicas fails with the SDK's error (which request) rather than this test's timeout.
  it(
    '3. MCP over SSE with messages on the other replica, and over Streamable HTTP',
    () => mcpOnBothReplicas(platform!),
    90_000,
  );
  it('4. the relay keeps a document’s renames in order', () => relayKeepsOrder(platform!));
  it('5. both export workers take jobs off the one queue', () => exportWorkersShareQueue(platform!), 90_000);
  it(
    '6. collab editors on both replicas converge, and REST reads the result',
    () => collabConverges(platform!),
    150_000,
  );
  it(
    '7. document history: one of two racing writers wins, the same list from either replica, a restore reaches live editors',
    () => historyAcrossReplicas(platform!),
    150_000,
  );
  it('8. an invitation is e-mailed, and its link lets the invitee join', () => invitationEmailJoins(platform!), 60_000);
  it('9. a mention is e-mailed once, whichever replica sends', () => mentionEmailedOnce(platform!), 120_000);
  it(
    '10. a watched document’s edits give one debounced notification, and one more after the window',
    () => watchedEditsDebounced(platform!),
    90_000,
  );
  it(
    '11. a webhook receiver gets every event once, signed and in order, through its outage',
    () => webhooksThroughOutage(platform!),
    90_000,
  );
});
