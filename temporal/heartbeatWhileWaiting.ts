import type { ActivityInterceptorsFactory } from '@temporalio/worker';

/** Beats at most this often, and at least three times per heartbeat timeout. */
const MAX_INTERVAL_MS = 5000;

/**
 * Heartbeats for an activity while its thread is free, so that one long statement in PostgreSQL (a step's finalize
 * over 100,000 series: dropping stale rows, moving superseded forecasts) does not outlast the heartbeat timeout and
 * get the activity cancelled and retried until it fails (the forecast step at 100,000 series did, five times over).
 * The activities' own heartbeats between pages and series stay: they carry progress and honour a kill. What a
 * heartbeat proves is unchanged: a worker that dies stops beating, and a thread stuck in computation cannot beat,
 * since the timer needs the event loop. A statement that hangs is bounded by the activity's start-to-close timeout.
 */
export function heartbeatWhileWaiting(): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      execute: async (input, next) => {
        const timeout = ctx.info.heartbeatTimeoutMs;
        if (!timeout) return next(input);
        const timer = setInterval(() => ctx.heartbeat(), Math.min(MAX_INTERVAL_MS, Math.max(100, Math.floor(timeout / 3))));
        try {
          return await next(input);
        } finally {
          clearInterval(timer);
        }
      },
    },
  });
}
