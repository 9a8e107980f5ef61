// PayForge for a lifecycle bench: a test server on the bench's chain (private webhook URLs allowed, no
// effective rate limit) and a pro test-mode API client whose webhooks go to the bench's receiver.
import type { Config } from '../../src/config.types';
import { startTestServer, type ApiClient, type DeepPartial, type TestServer } from '../../test/support/server';

export function startBenchServer(networks: DeepPartial<Config>['networks']): Promise<TestServer> {
  return startTestServer({
    networks,
    webhooks: { allowPrivateUrls: true },
    rateLimit: { perSecond: 1_000_000_000, burst: 1_000_000_000 },
  });
}

/** A pro account's test-mode API client, its webhook endpoint set to `hooksUrl`. */
export async function benchApi(server: TestServer, hooksUrl: string): Promise<ApiClient> {
  const { key, accountId } = await server.account({ plan: 'pro' });
  await server.setEndpoint(accountId, 'test', hooksUrl);
  return server.api(key);
}
