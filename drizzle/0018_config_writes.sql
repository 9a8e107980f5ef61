-- A count of writes to what the server remembers per connection besides intents: API keys and
-- accounts (its key look-up's answers: a revoke, a plan change) and webhook endpoints (the URL a
-- create's delivery row takes). Every connection's write bumps it (the server's, a CLI command's,
-- another process's), and nothing else does: the server reads it once per event-loop turn for the
-- keys and once per write batch for the endpoints (src/store/config-writes.ts) and forgets what it
-- remembered only when it moved. (PRAGMA data_version, read before, moves on any other
-- connection's commit: the webhook dispatcher thread's under load, so the keys were read again
-- after each of them.) An api_keys write of last_used_at alone (the ~30 s touch) changes no answer.
CREATE TABLE `config_writes` (`k` integer PRIMARY KEY NOT NULL, `n` integer NOT NULL);
--> statement-breakpoint
INSERT INTO `config_writes` (`k`, `n`) VALUES (0, 0);
--> statement-breakpoint
CREATE TRIGGER `config_writes_api_keys_insert` AFTER INSERT ON `api_keys` BEGIN UPDATE `config_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
--> statement-breakpoint
CREATE TRIGGER `config_writes_api_keys_update` AFTER UPDATE OF `id`, `account_id`, `mode`, `hash`, `revoked_at` ON `api_keys` BEGIN UPDATE `config_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
--> statement-breakpoint
CREATE TRIGGER `config_writes_api_keys_delete` AFTER DELETE ON `api_keys` BEGIN UPDATE `config_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
--> statement-breakpoint
CREATE TRIGGER `config_writes_accounts_insert` AFTER INSERT ON `accounts` BEGIN UPDATE `config_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
--> statement-breakpoint
CREATE TRIGGER `config_writes_accounts_update` AFTER UPDATE ON `accounts` BEGIN UPDATE `config_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
--> statement-breakpoint
CREATE TRIGGER `config_writes_accounts_delete` AFTER DELETE ON `accounts` BEGIN UPDATE `config_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
--> statement-breakpoint
CREATE TRIGGER `config_writes_endpoints_insert` AFTER INSERT ON `webhook_endpoints` BEGIN UPDATE `config_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
--> statement-breakpoint
CREATE TRIGGER `config_writes_endpoints_update` AFTER UPDATE ON `webhook_endpoints` BEGIN UPDATE `config_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
--> statement-breakpoint
CREATE TRIGGER `config_writes_endpoints_delete` AFTER DELETE ON `webhook_endpoints` BEGIN UPDATE `config_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
