/**
 * The CPU-bound chunk activities of the per-series steps run on a task queue of their own, served in every worker
 * process by a second Temporal worker that takes one such activity at a time. A worker process runs JavaScript on one
 * thread, so two compute chunks in one process only take turns; one per process lets Temporal hand the next chunk to a
 * process that is free, and one worker process per core uses every core. Pure: imported by workflows and the worker.
 */
export const computeTaskQueue = (taskQueue: string): string => `${taskQueue}-compute`;
