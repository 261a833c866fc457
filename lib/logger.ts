import pino from 'pino';

/** Spec log levels (§4.2) mapped onto pino's. */
export const LOG_LEVELS = { DEBUG: 'debug', INFO: 'info', WARNING: 'warn', ERROR: 'error' } as const;
export type SpecLogLevel = keyof typeof LOG_LEVELS;

export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
  redact: { paths: ['*.password', '*.jwt_secret', '*.access_token', '*.credential'], censor: '***' },
});

export function specLevel(): SpecLogLevel | 'SILENT' {
  const entry = Object.entries(LOG_LEVELS).find(([, v]) => v === logger.level);
  return (entry?.[0] as SpecLogLevel) ?? 'SILENT';
}

export function setSpecLevel(level: SpecLogLevel): void {
  logger.level = LOG_LEVELS[level];
}
