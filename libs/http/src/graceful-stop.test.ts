import { createApp } from './app.js';
import { GracefulStop } from './graceful-stop.js';
import { registerHealth } from './health.js';

describe('GracefulStop', () => {
  it('takes the app out of rotation, waits the delay, drains it, then stops the parts in reverse', async () => {
    const order: string[] = [];
    const app = await createApp({ service: 'graceful-stop-test', logLevel: 'silent' });
    registerHealth(app, {});
    app.addHook('onClose', async () => {
      order.push('app closed');
    });
    const stop = new GracefulStop(150);
    stop.add('pool', async () => {
      order.push('pool');
    });
    stop.add('failing part', async () => {
      throw new Error('cannot stop');
    });
    stop.add('consumer', async () => {
      order.push('consumer');
    });
    stop.serving(app);

    const started = Date.now();
    const stopping = stop.stop();
    // Readiness is off at once, while the app still answers.
    const ready = await app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().checks.accepting).toBe('DOWN');
    expect(order).toEqual([]);

    await stopping;
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    // A part that fails to stop does not keep the others open.
    expect(order).toEqual(['app closed', 'consumer', 'pool']);
    // A second stop does nothing more.
    await stop.stop();
    expect(order).toEqual(['app closed', 'consumer', 'pool']);
  });

  it('stops the parts opened so far when there is no app yet (a start that failed early)', async () => {
    const order: string[] = [];
    const stop = new GracefulStop(10_000);
    stop.add('redis', async () => {
      order.push('redis');
    });
    await stop.stop();
    expect(order).toEqual(['redis']);
  });
});
