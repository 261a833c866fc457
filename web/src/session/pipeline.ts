import { useQuery } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { api, must } from '../api/client';

/** The pipeline the pages read: chosen in the header, kept for the tab. */
const KEY = 'workbench.pipeline';
const listeners = new Set<() => void>();
let chosen: number | null = Number(sessionStorage.getItem(KEY)) || null;

export function choosePipeline(id: number): void {
  chosen = id;
  sessionStorage.setItem(KEY, String(id));
  for (const l of listeners) l();
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

export function usePipelines() {
  return useQuery({ queryKey: ['pipelines'], queryFn: async () => must(await api.GET('/api/scenario-pipeline', { params: { query: { limit: 200 } } })) });
}

/** The chosen pipeline if it still exists, else the first active one, else the first. */
export function usePipeline() {
  const wanted = useSyncExternalStore(subscribe, () => chosen);
  const list = usePipelines().data ?? [];
  return list.find((p) => p.id === wanted) ?? list.find((p) => p.is_active) ?? list[0] ?? null;
}
