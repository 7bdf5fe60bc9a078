import type { Config } from '@wiki/config';
import { NewestWinsLimit, type SlotsLogger } from '@wiki/limits';
import { loadNotificationSettings } from '../settings.js';

/**
 * What a stream gets last when a newer stream of the same user pushes it out. The long `retry`
 * keeps an EventSource that reconnects by itself (an old background tab) from pushing out the
 * next oldest at once, round and round; a client that sees this reason should come back when
 * its user does, not straight away.
 */
export const TOO_MANY_STREAMS_NOTICE = 'retry: 30000\nevent: reconnect\ndata: {"reason":"too many streams"}\n\n';

/**
 * At most NOTIFICATION_STREAMS_PER_USER open streams per user across every replica (ARCHITECTURE
 * 5.14): a new one is always served and closes the user's oldest, wherever it is. Each stream
 * holds a connection at the gateway and a reader here; a user with a hundred tabs should not.
 */
export type StreamLimit = NewestWinsLimit;

export const createStreamLimit = (config: Config, logger: SlotsLogger): StreamLimit =>
  new NewestWinsLimit(config, 'notification-streams', loadNotificationSettings(config.env).streamsPerUser, logger);
