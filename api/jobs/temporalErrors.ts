/**
 * Temporal's client errors recognised by name. The API tells "not found" and "failed" apart in several places, and an
 * `instanceof` there loaded all of @temporalio/client (about 0.4 s of CPU) into every process and test file that
 * builds the app, including those that never connect to Temporal; the SDK gives each of these errors its class name.
 */
export type TemporalErrorName = 'WorkflowNotFoundError' | 'ScheduleNotFoundError' | 'WorkflowFailedError';

export function isTemporalError(err: unknown, name: TemporalErrorName): err is Error & { cause?: Error & { cause?: Error } } {
  return err instanceof Error && err.name === name;
}
