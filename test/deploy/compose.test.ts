// deploy/: the three-instance example stays consistent with the code: three `serve` instances on
// the compose file's PostgreSQL, a config file the real loader accepts (with the URL the compose
// file gives), and a load balancer sending traffic to exactly those instances, health-checked on /readyz.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { REPO_ROOT } from '../support/cli';

const DEPLOY = join(REPO_ROOT, 'deploy');
type Service = { command?: string[]; environment?: Record<string, string>; volumes?: string[]; image?: string; build?: { context: string } };
const compose = Bun.YAML.parse(readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8')) as { services: Record<string, Service> };
const instances = Object.entries(compose.services).filter(([, s]) => s.command?.[0] === 'serve');
/** docker compose's ${VAR:-default} with every variable unset. */
const interpolate = (v: string) => v.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

describe('deploy/compose.yaml', () => {
  it('runs three payforge serve instances, built from this repository, on its PostgreSQL service', () => {
    expect(instances.map(([name]) => name)).toEqual(['payforge-1', 'payforge-2', 'payforge-3']);
    for (const [, s] of instances) {
      expect(s.build?.context).toBe('..');
      const url = new URL(interpolate(s.environment!.PAYFORGE_DB!));
      expect(url.protocol).toBe('postgres:');
      expect(compose.services[url.hostname], `service ${url.hostname}`).toBeDefined();
      expect(compose.services[url.hostname]!.image).toMatch(/^postgres:/);
    }
  });

  it('hands each instance a config the real loader accepts, with the compose URL as db', () => {
    for (const [, s] of instances) {
      const mount = s.volumes!.find((v) => v.endsWith(':ro'))!.split(':');
      const configPath = s.command![s.command!.indexOf('--config') + 1];
      expect(mount[1]).toBe(configPath);
      const config = loadConfig({ config: join(DEPLOY, mount[0]!) }, { PAYFORGE_DB: interpolate(s.environment!.PAYFORGE_DB!) });
      expect(config.db).toMatch(/^postgres:\/\/payforge:[^@]+@postgres:5432\/payforge$/);
      expect(config.cluster.poolSize).toBeGreaterThan(0);
    }
  });

  it('balances over exactly those instances, health-checked on /readyz', () => {
    const caddy = readFileSync(join(DEPLOY, 'Caddyfile'), 'utf8');
    const upstreams = /reverse_proxy\s+([^{]+)\{/.exec(caddy)![1]!.trim().split(/\s+/);
    expect(upstreams).toEqual(instances.map(([name]) => `${name}:8080`));
    expect(caddy).toMatch(/health_uri \/readyz/);
  });
});
