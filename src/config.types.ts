// The shape of PayForge's configuration (contract section 1). src/config.ts parses and
// validates it once at boot; everything else receives the frozen object.

export interface NetworkOverride {
  rpc?: string[];
  confirmations?: number;
  pollIntervalMs?: number;
  rebroadcastIntervalMs?: number;
  tokens?: Record<string, { address: string; decimals: number }>;
}

export interface Config {
  port: number;
  host: string;
  db: string;
  networks: Record<string, NetworkOverride>;
  intents: { defaultTtlSeconds: number; minTtlSeconds: number; maxTtlSeconds: number };
  webhooks: {
    retryScheduleSeconds: number[];
    timeoutMs: number;
    allowPrivateUrls: boolean;
    /** How often the dispatcher looks for due deliveries when nothing woke it. */
    pollIntervalMs: number;
    /** A claimed delivery whose lease ran out (dead process) is claimed again. */
    leaseMs: number;
    concurrency: number;
    perEndpointConcurrency: number;
    /** The previous secret keeps signing for this long after a rotation. */
    rotationOverlapSeconds: number;
  };
  screening: {
    extraAddresses: string[];
    /** Optional file with one extra address a line. */
    extraAddressesFile: string | null;
    /** Folder of sanctioned_addresses_*.txt files; null = the list embedded in the binary. */
    listDir: string | null;
    provider: { url: string; apiKey: string; timeoutMs: number } | null;
  };
  idempotency: { ttlSeconds: number };
  /** Payments found on chain (contract section 11): how long after an intent closed its receiver stays watched. */
  detection: { lookbackSeconds: number };
  /**
   * SQLite: one `serve` per database file, held by an instance lease row with a heartbeat; a lease
   * whose heartbeat is older than this is taken over (the instance died). PostgreSQL: section 13.
   */
  cluster: {
    leaseSeconds: number;
    /** PostgreSQL (`db` a postgres:// URL): connections each instance keeps at most. */
    poolSize: number;
  };
  rateLimit: { perSecond: number; burst: number };
  /**
   * SQLite under `serve`: write creates on a thread of their own (src/store/intent-writer.ts)
   * instead of the event loop's group commit. Off by default: on 2 cores it measured slower
   * (README Decisions, "Creates on their own thread").
   */
  sqlite: { writerThread: boolean };
  rpc: { timeoutMs: number; breakerFailures: number; breakerCooldownMs: number; retryAfterSeconds: number };
  adminToken: string | null;
  /** Where payers reach this server (pay links); null = http://<host>:<port> of the listener. */
  publicUrl: string | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** serve --inspect: false (off), true (the Sky inspector), or a ws:// URL of a local receiver. */
  inspect: boolean | string;
}

export const DEFAULT_CONFIG: Config = {
  port: 8080,
  host: '127.0.0.1',
  db: './data/payforge.db',
  networks: {},
  intents: { defaultTtlSeconds: 900, minTtlSeconds: 60, maxTtlSeconds: 604800 },
  webhooks: {
    retryScheduleSeconds: [60, 300, 1800, 7200, 18000, 36000, 43200, 57600, 86400],
    timeoutMs: 10000,
    allowPrivateUrls: false,
    pollIntervalMs: 1000,
    leaseMs: 30000,
    concurrency: 64,
    perEndpointConcurrency: 8,
    rotationOverlapSeconds: 86400,
  },
  screening: { extraAddresses: [], extraAddressesFile: null, listDir: null, provider: null },
  idempotency: { ttlSeconds: 86400 },
  detection: { lookbackSeconds: 604800 },
  cluster: { leaseSeconds: 10, poolSize: 10 },
  rateLimit: { perSecond: 200, burst: 400 },
  sqlite: { writerThread: false },
  rpc: { timeoutMs: 5000, breakerFailures: 3, breakerCooldownMs: 10000, retryAfterSeconds: 5 },
  adminToken: null,
  publicUrl: null,
  logLevel: 'info',
  inspect: false,
};
