export declare const serviceNodeFlags: string[];
export declare const serviceEnv: Record<string, string>;
