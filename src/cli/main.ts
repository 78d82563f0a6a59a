#!/usr/bin/env node
import { ConfigError } from '../config/issues.js'
import { GatewayError } from '../core/errors.js'
import { PRODUCT_NAME, packageVersion } from '../core/package-info.js'
import { ADMIN_USAGE, runAdmin } from './admin-cli.js'
import { err, out, UsageError } from './args.js'
import { MANIFEST_USAGE, runManifest } from './manifest-sync.js'
import { runServe, SERVE_USAGE } from './serve.js'
import { runSim, SIM_USAGE } from './sim.js'
import { runValidate, VALIDATE_USAGE } from './validate.js'

const USAGE = `${PRODUCT_NAME} ${packageVersion()}: one MCP endpoint for UniFi Network, Protect and Access servers

${SERVE_USAGE}

${SIM_USAGE}

${VALIDATE_USAGE}

${MANIFEST_USAGE}

${ADMIN_USAGE}

Exit codes: 0 ok, 1 runtime failure, 2 bad usage or bad config.`

type Command = (
  argv: string[],
  env: Readonly<Record<string, string | undefined>>,
) => Promise<number>

const COMMANDS: Record<string, Command> = {
  serve: runServe,
  sim: (argv) => runSim(argv),
  validate: runValidate,
  manifest: runManifest,
  register: (argv, env) => runAdmin('register', argv, env),
  deregister: (argv, env) => runAdmin('deregister', argv, env),
  list: (argv, env) => runAdmin('list', argv, env),
  enable: (argv, env) => runAdmin('enable', argv, env),
  disable: (argv, env) => runAdmin('disable', argv, env),
}

async function main(argv: string[]): Promise<number> {
  const [name = 'serve', ...rest] = argv
  if (name === '--help' || name === '-h' || name === 'help') {
    out(USAGE)
    return 0
  }
  if (name === '--version') {
    out(packageVersion())
    return 0
  }
  const command = COMMANDS[name]
  if (!command) {
    err(`unknown command "${name}"\n\n${USAGE}`)
    return 2
  }
  try {
    return await command(rest, process.env)
  } catch (e) {
    if (e instanceof UsageError) {
      err(`${PRODUCT_NAME} ${name}: ${e.message} (see --help)`)
      return 2
    }
    if (e instanceof ConfigError) {
      err(e.message)
      return 2
    }
    err(
      `${PRODUCT_NAME} ${name}: ${e instanceof GatewayError || e instanceof Error ? e.message : String(e)}`,
    )
    return 1
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
    // Exit explicitly: lingering keep-alive sockets or timers must not keep a finished command alive.
    setTimeout(() => process.exit(code), 100).unref()
  },
  (e) => {
    err(String(e))
    process.exit(1)
  },
)
