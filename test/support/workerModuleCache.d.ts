// Types of workerModuleCache.js, which stays plain JavaScript: Jest loads it with the runtime, outside any transform.
export interface TransformFlags {
  instrument?: boolean;
  supportsDynamicImport?: boolean;
  supportsStaticESM?: boolean;
  supportsExportNamespaceFrom?: boolean;
  supportsTopLevelAwait?: boolean;
}
export function createSourceCache(): (filename: string) => string;
export function createTransformCache(): <O extends TransformFlags, R>(
  projectId: string,
  transform: (filename: string, options: O, source: string) => R,
) => (filename: string, options: O, source: string) => R;
export function createResolutionCache(): (projectId: string, resolve: (from: string, to: string) => string) => (from: string, to: string) => string;
