// Types of node-flags.js (plain JavaScript: bin/ runs before any TypeScript is loaded).
export declare const WORKER_SEMI_SPACE_MB: number;
export declare const COORDINATOR_SEMI_SPACE_MB: number;
export declare const COORDINATOR_HEAP_GROWING_PERCENT: number;
export declare const WORKER_MMAP_THRESHOLD_BYTES: number;
export declare function commandOf(args: readonly string[]): string | undefined;
export declare function nodeFlagsFor(args: readonly string[], execArgv: readonly string[], nodeOptions: string | undefined): string[];
export declare function nodeEnvFor(args: readonly string[], env: Readonly<Record<string, string | undefined>>): Record<string, string>;
