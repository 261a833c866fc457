import { HttpError, notFound, unauthorized } from '../../api/errors';

test('a 4xx answer is an error without stack frames; ordinary errors keep theirs', () => {
  const e = notFound('segment 7 not found');
  expect(e).toBeInstanceOf(HttpError);
  expect([e.status, e.detail, e.message]).toEqual([404, 'segment 7 not found', 'segment 7 not found']);
  expect(e.stack).toBe('Error: segment 7 not found');
  expect(unauthorized().headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
  const fault = new Error('a bug');
  expect(fault.stack!.split('\n').length).toBeGreaterThan(1);
});
