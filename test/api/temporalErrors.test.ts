import { ScheduleNotFoundError, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { isTemporalError } from '../../api/jobs/temporalErrors';

// The API recognises these errors by name so that it need not load the SDK's client: the SDK's own errors must match.
test('the SDK errors the API tells apart are recognised by name, and nothing else is', () => {
  expect(isTemporalError(new WorkflowNotFoundError('gone', 'wf-1', undefined), 'WorkflowNotFoundError')).toBe(true);
  expect(isTemporalError(new ScheduleNotFoundError('gone', 'freeze-1'), 'ScheduleNotFoundError')).toBe(true);
  const failed = new WorkflowFailedError('failed', new Error('step supply failed'), 'NON_RETRYABLE_FAILURE');
  expect(isTemporalError(failed, 'WorkflowFailedError')).toBe(true);
  expect(failed.cause?.message).toBe('step supply failed');
  expect(isTemporalError(new WorkflowNotFoundError('gone', 'wf-1', undefined), 'ScheduleNotFoundError')).toBe(false);
  expect(isTemporalError(new Error('WorkflowNotFoundError'), 'WorkflowNotFoundError')).toBe(false);
  expect(isTemporalError({ name: 'WorkflowNotFoundError' }, 'WorkflowNotFoundError')).toBe(false);
});
