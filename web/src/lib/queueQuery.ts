/**
 * The work queue's filters, kept in the page's URL (so a reload or a shared link shows the same rows) and turned into
 * the exception log's and the alerts' query parameters, which take different names and values.
 */
export interface QueueFilters {
  pipeline: number | null;
  segment: number | null;
  /** exception types, e.g. forecast, io, supply (the exception log's `types`) */
  types: string[];
  status: 'open' | 'resolved' | 'snoozed';
  page: number;
  pageSize: number;
}

export const PAGE_SIZES = [25, 50, 100] as const;
export const DEFAULT_FILTERS: QueueFilters = { pipeline: null, segment: null, types: [], status: 'open', page: 1, pageSize: 25 };

const STATUSES = ['open', 'resolved', 'snoozed'] as const;
/** The exception log's types (document 2's three families); anything else in a URL is dropped, not sent */
export const EXCEPTION_TYPES = ['forecast', 'io', 'supply'] as const;

function positive(raw: string | null): number | null {
  if (raw === null || !/^\d+$/.test(raw)) return null;
  const n = Number(raw);
  return n >= 1 && n <= 2147483647 ? n : null;
}

export function filtersFromSearch(search: string | URLSearchParams): QueueFilters {
  const p = typeof search === 'string' ? new URLSearchParams(search) : search;
  const status = p.get('status');
  const size = positive(p.get('size'));
  return {
    pipeline: positive(p.get('pipeline')),
    segment: positive(p.get('segment')),
    types: [...new Set((p.get('types') ?? '').split(',').map((t) => t.trim()))].filter((t) => (EXCEPTION_TYPES as readonly string[]).includes(t)),
    status: (STATUSES as readonly string[]).includes(status ?? '') ? (status as QueueFilters['status']) : 'open',
    page: positive(p.get('page')) ?? 1,
    pageSize: size && (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_FILTERS.pageSize,
  };
}

/** Only what differs from the defaults goes into the URL, so a plain /queue stays plain. */
export function searchFromFilters(f: QueueFilters): string {
  const p = new URLSearchParams();
  if (f.pipeline) p.set('pipeline', String(f.pipeline));
  if (f.segment) p.set('segment', String(f.segment));
  if (f.types.length) p.set('types', f.types.join(','));
  if (f.status !== DEFAULT_FILTERS.status) p.set('status', f.status);
  if (f.page > 1) p.set('page', String(f.page));
  if (f.pageSize !== DEFAULT_FILTERS.pageSize) p.set('size', String(f.pageSize));
  return p.toString();
}

/** A change of any filter but the page starts again at page 1: page 7 of another filter means nothing. */
export function withFilter(f: QueueFilters, change: Partial<Omit<QueueFilters, 'page'>>): QueueFilters {
  return { ...f, ...change, page: 1 };
}

export function exceptionLogQuery(f: QueueFilters, pipelineId: number) {
  return {
    pipeline_id: pipelineId,
    status: f.status,
    page: f.page,
    page_size: f.pageSize,
    ...(f.segment ? { segment_id: f.segment } : {}),
    ...(f.types.length ? { types: f.types.join(',') } : {}),
  };
}

/** The alerts' statuses are decisions (open, approved, rejected): an exception status other than open shows decided ones. */
export function alertsQuery(f: QueueFilters, pipelineId: number) {
  return {
    pipeline_id: pipelineId,
    status: f.status === 'open' ? ('open' as const) : ('approved' as const),
    page: 1,
    page_size: 10,
    ...(f.segment ? { segment_id: f.segment } : {}),
  };
}

export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

/** "41–60 of 230" for the pager, "none" for an empty page. */
export function pageRange(page: number, pageSize: number, total: number): string {
  if (total === 0) return 'none';
  const from = (page - 1) * pageSize + 1;
  return `${Math.min(from, total)}–${Math.min(page * pageSize, total)} of ${total}`;
}
