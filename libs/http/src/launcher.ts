/**
 * Makes this process stop with the launcher that started it over an IPC channel (`npm start`):
 * when that channel closes — the launcher exited, was killed with SIGKILL, or its terminal was
 * closed — the process signals itself SIGTERM, so the graceful stop of `serveUntilSignalled`
 * runs (or, before that is in place, the default SIGTERM ends it). Without the channel (a
 * container, a service manager, a test) it does nothing.
 */
export function stopWithLauncher(): void {
  if (typeof process.send !== 'function') return;
  const stop = () => process.kill(process.pid, 'SIGTERM');
  // The channel may already be gone when this runs late in start-up.
  if (!process.connected) stop();
  else process.once('disconnect', stop);
}
