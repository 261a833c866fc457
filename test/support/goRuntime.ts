/**
 * Go runtime settings for the Temporal dev servers the tests start: one thread of execution, and garbage collected at
 * four times the live heap instead of twice. The jest workers keep both cores busy, where Go's idle threads spinning
 * for work and its frequent collections only took CPU from them. Six workflow files, paired runs: the run's server's
 * CPU 29.6, 29.1, 26.6 s by default against 22.8 and 21.0 s with both (23.8 with one thread alone, 25.3 with the
 * collector setting alone). Production servers keep Go's defaults.
 */
export const TEST_GO_RUNTIME = { GOMAXPROCS: '1', GOGC: '400' } as const;
