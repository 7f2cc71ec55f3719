export declare const PG_BASE_URL: string;
export declare const REDIS_URL: string;
export declare const ADMIN_DATABASE_URL: string;
export declare function templateDatabase(): string;
export declare function databaseUrl(database: string): string;
