import { z } from 'zod'
import { LOG_LEVELS } from '../core/logger.js'
import { SLUG_PATTERN } from '../core/names.js'

/**
 * The configuration file of interface.md §4. Every object is strict, so a misspelt key is
 * reported with its JSON path instead of being silently ignored.
 */
const SLUG_RULE =
  'must be a lower-case slug of 1 to 24 characters: a-z, 0-9 and inner "-" (no "_", so "__" stays a safe separator)'
export const SlugSchema = z.string().regex(SLUG_PATTERN, SLUG_RULE)

export const REGISTRATION_MODES = ['lazy', 'meta_only', 'eager'] as const
export const RegistrationModeSchema = z.enum(REGISTRATION_MODES)
export type RegistrationMode = z.infer<typeof RegistrationModeSchema>

export const AppSchema = z.enum(['network', 'protect', 'access', 'generic'])

const upstreamCommon = {
  name: SlugSchema,
  description: z.string().max(500).optional(),
  /** The site this upstream serves; defaults to its name. */
  site: SlugSchema.optional(),
  app: AppSchema.default('generic'),
  /** A disabled upstream is not connected, and nothing of it is listed or callable. */
  enabled: z.boolean().default(true),
  /** Refuse this upstream's mutating tools at the gateway (overrides the top-level `readOnly`). */
  readOnly: z.boolean().optional(),
}

const HttpUpstreamSchema = z.strictObject({
  ...upstreamCommon,
  transport: z.literal('streamable_http'),
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  bearer_token: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).default({}),
})

const StdioUpstreamSchema = z.strictObject({
  ...upstreamCommon,
  transport: z.literal('stdio'),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().min(1).optional(),
})

export const UpstreamEntrySchema = z
  .discriminatedUnion('transport', [HttpUpstreamSchema, StdioUpstreamSchema], {
    error: 'transport must be "streamable_http" or "stdio"',
  })
  .transform((u) => ({ ...u, site: u.site ?? u.name }))
export type UpstreamConfig = z.output<typeof UpstreamEntrySchema>
export type UpstreamInput = z.input<typeof UpstreamEntrySchema>

export const ClientTokenSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 characters of A-Z a-z 0-9 . _ -'),
  token: z
    .string()
    .min(16, 'must be at least 16 characters (generate one with: openssl rand -hex 32)'),
  /** Sites this token may see and reach; "*" for all. */
  sites: z.array(z.union([z.literal('*'), SlugSchema])).default(['*']),
})
export type ClientToken = z.infer<typeof ClientTokenSchema>

export const LimitsSchema = z.strictObject({
  /** Upstream calls in flight through the whole gateway. */
  concurrency: z.number().int().min(1).max(10_000).default(16),
  /** Upstream calls in flight to any one upstream. */
  perUpstreamConcurrency: z.number().int().min(1).max(1_000).default(4),
  /** How long an upstream call may go without an answer (or a progress notification). */
  callTimeoutMs: z.number().int().min(100).max(3_600_000).default(30_000),
  maxBatchOperations: z.number().int().min(1).max(100_000).default(200),
  /** Jobs queued or running at once, over every client. */
  maxQueuedJobs: z.number().int().min(1).max(1_000_000).default(1_000),
  jobRetentionMs: z.number().int().min(1_000).default(3_600_000),
  maxRetainedJobs: z.number().int().min(1).max(1_000_000).default(1_000),
  /** Upper bound on `*_batch_status {wait_ms}`. */
  maxWaitMs: z.number().int().min(0).max(600_000).default(60_000),
  /** Downstream sessions idle this long are closed. */
  sessionIdleMs: z.number().int().min(1_000).default(1_800_000),
  maxSessions: z.number().int().min(1).max(100_000).default(1_000),
  /** How often connected upstreams are pinged, and down ones retried at the latest. */
  healthCheckIntervalMs: z.number().int().min(500).default(30_000),
  /** Requests larger than this get 413. */
  maxBodyBytes: z
    .number()
    .int()
    .min(1_024)
    .max(64 * 1024 * 1024)
    .default(1_048_576),
  /** On SIGTERM/SIGINT, how long running jobs may take to finish before they are cancelled. */
  shutdownGraceMs: z.number().int().min(0).max(600_000).default(10_000),
})
export type Limits = z.infer<typeof LimitsSchema>

export const PromptSettingsSchema = z.strictObject({
  /** `<upstream>__<prompt>` names, or whole upstream names, that are neither listed nor retrievable. */
  disabled: z.array(z.string().min(1)).default([]),
  /** Cap for free-text prompt arguments (symptoms, requested_change, ...). */
  maxTextLength: z.number().int().min(1).max(100_000).default(2_000),
  /** Cap for identifiers and focus strings (site_id, device_identifier, focus, ...). */
  maxIdentifierLength: z.number().int().min(1).max(100_000).default(500),
})
export type PromptSettings = z.infer<typeof PromptSettingsSchema>

export const ConfigSchema = z.strictObject({
  listen: z
    .strictObject({
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65_535).default(8080),
      /** Extra Host header values accepted besides loopback names (e.g. "gw.lan:8080"). */
      allowedHosts: z.array(z.string().min(1)).default([]),
      /** Extra Origin values accepted besides loopback origins (e.g. "https://inspector.lan"). */
      allowedOrigins: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
  auth: z
    .strictObject({
      tokens: z.array(ClientTokenSchema).default([]),
      adminToken: z
        .string()
        .min(16, 'must be at least 16 characters (generate one with: openssl rand -hex 32)')
        .optional(),
    })
    .prefault({}),
  registrationMode: RegistrationModeSchema.default('lazy'),
  /** Refuse every mutating UniFi tool at the gateway (per-upstream `readOnly` wins). */
  readOnly: z.boolean().default(false),
  limits: LimitsSchema.prefault({}),
  prompts: PromptSettingsSchema.prefault({}),
  /** Where run-time registrations are kept (default: gateway-state.json next to the config file). */
  stateFile: z.string().min(1).optional(),
  admin: z
    .strictObject({
      /**
       * Allow the admin API to register stdio upstreams. Off by default: it lets whoever holds
       * the admin token run a command on this host (MCP security best practices, "stdio in
       * proxy scenarios"). Stdio upstreams in the config file are always allowed.
       */
      allowStdioRegistration: z.boolean().default(false),
    })
    .prefault({}),
  metrics: z
    .strictObject({
      /** `none`: /metrics is open (loopback by default); `admin`: it needs the admin token. */
      auth: z.enum(['none', 'admin']).default('none'),
    })
    .prefault({}),
  log: z.strictObject({ level: z.enum(LOG_LEVELS).default('info') }).prefault({}),
  upstreams: z.array(UpstreamEntrySchema).default([]),
})

export type Config = z.output<typeof ConfigSchema>
export type ConfigInput = z.input<typeof ConfigSchema>
