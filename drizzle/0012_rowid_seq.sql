PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_events` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`account_id` text NOT NULL,
	`mode` text NOT NULL,
	`intent_id` text,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_events`("seq", "id", "account_id", "mode", "intent_id", "type", "payload", "created_at") SELECT "seq", "id", "account_id", "mode", "intent_id", "type", "payload", "created_at" FROM `events`;--> statement-breakpoint
DROP TABLE `events`;--> statement-breakpoint
ALTER TABLE `__new_events` RENAME TO `events`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `events_id` ON `events` (`id`);--> statement-breakpoint
CREATE INDEX `events_account` ON `events` (`account_id`,`mode`,`seq`);--> statement-breakpoint
CREATE INDEX `events_intent` ON `events` (`intent_id`,`seq`);--> statement-breakpoint
CREATE TABLE `__new_intents` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`account_id` text NOT NULL,
	`mode` text NOT NULL,
	`chain` text NOT NULL,
	`token` text NOT NULL,
	`token_address` text NOT NULL,
	`decimals` integer NOT NULL,
	`amount_base_units` text NOT NULL,
	`requestor` text NOT NULL,
	`fulfiller` text,
	`direction` text NOT NULL,
	`state` text NOT NULL,
	`reference` text,
	`metadata` text NOT NULL,
	`idempotency_key` text,
	`ttl_seconds` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`retry_required` integer NOT NULL,
	`pending_at_expiry` integer NOT NULL,
	`tx_signature` text,
	`detected_at` integer,
	`ata_rent_lamports` integer,
	`confirmed_at` integer,
	`finalized_at` integer,
	`failure_reason` text,
	`refunded_by` text,
	`refund_of` text,
	`refunds` text DEFAULT '[]' NOT NULL,
	`build_data` text,
	`signed_transaction` text,
	`watch_data` text,
	`snapshot` text NOT NULL,
	`machine_version` integer NOT NULL,
	`solana_reference` text,
	`late_payment` text,
	`pay_token` text
);
--> statement-breakpoint
INSERT INTO `__new_intents`("seq", "id", "account_id", "mode", "chain", "token", "token_address", "decimals", "amount_base_units", "requestor", "fulfiller", "direction", "state", "reference", "metadata", "idempotency_key", "ttl_seconds", "expires_at", "created_at", "updated_at", "retry_required", "pending_at_expiry", "tx_signature", "detected_at", "ata_rent_lamports", "confirmed_at", "finalized_at", "failure_reason", "refunded_by", "refund_of", "refunds", "build_data", "signed_transaction", "watch_data", "snapshot", "machine_version", "solana_reference", "late_payment", "pay_token") SELECT "seq", "id", "account_id", "mode", "chain", "token", "token_address", "decimals", "amount_base_units", "requestor", "fulfiller", "direction", "state", "reference", "metadata", "idempotency_key", "ttl_seconds", "expires_at", "created_at", "updated_at", "retry_required", "pending_at_expiry", "tx_signature", "detected_at", "ata_rent_lamports", "confirmed_at", "finalized_at", "failure_reason", "refunded_by", "refund_of", "refunds", "build_data", "signed_transaction", "watch_data", "snapshot", "machine_version", "solana_reference", "late_payment", "pay_token" FROM `intents`;--> statement-breakpoint
DROP TABLE `intents`;--> statement-breakpoint
ALTER TABLE `__new_intents` RENAME TO `intents`;--> statement-breakpoint
CREATE UNIQUE INDEX `intents_id` ON `intents` (`id`);--> statement-breakpoint
CREATE INDEX `intents_account_list` ON `intents` (`account_id`,`mode`,`seq`);--> statement-breakpoint
CREATE INDEX `intents_account_state` ON `intents` (`account_id`,`mode`,`state`,`seq`);--> statement-breakpoint
CREATE INDEX `intents_account_reference` ON `intents` (`account_id`,`mode`,`reference`) WHERE reference IS NOT NULL;--> statement-breakpoint
CREATE INDEX `intents_live` ON `intents` (`chain`,`requestor`,`token_address`,`created_at`,`state`) WHERE state IN ('created','pending','confirmed','dropped');--> statement-breakpoint
CREATE UNIQUE INDEX `intents_tx_signature` ON `intents` (`chain`,`tx_signature`) WHERE tx_signature IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `intents_solana_reference` ON `intents` (`solana_reference`) WHERE solana_reference IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `intents_pay_token` ON `intents` (`pay_token`) WHERE pay_token IS NOT NULL;--> statement-breakpoint
CREATE INDEX `intents_receiver` ON `intents` (`chain`,`requestor`,`token_address`);--> statement-breakpoint
CREATE INDEX `intents_chain_updated` ON `intents` (`chain`,`updated_at`,`requestor`,`token_address`,`created_at`,`state`) WHERE state NOT IN ('created','pending','confirmed','dropped');--> statement-breakpoint
CREATE INDEX `intents_closed_unfinalized_tx` ON `intents` (`chain`,`updated_at`) WHERE state NOT IN ('created','pending','confirmed','dropped') AND tx_signature IS NOT NULL AND finalized_at IS NULL;--> statement-breakpoint
CREATE TABLE `__new_webhook_deliveries` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`event_id` text NOT NULL,
	`account_id` text NOT NULL,
	`mode` text NOT NULL,
	`url` text NOT NULL,
	`status` text NOT NULL,
	`attempt_count` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_until` integer,
	`response_status` integer,
	`last_error` text,
	`last_attempted_at` integer,
	`delivered_at` integer,
	`failed_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_webhook_deliveries`("seq", "id", "event_id", "account_id", "mode", "url", "status", "attempt_count", "next_attempt_at", "lease_until", "response_status", "last_error", "last_attempted_at", "delivered_at", "failed_at", "created_at") SELECT "seq", "id", "event_id", "account_id", "mode", "url", "status", "attempt_count", "next_attempt_at", "lease_until", "response_status", "last_error", "last_attempted_at", "delivered_at", "failed_at", "created_at" FROM `webhook_deliveries`;--> statement-breakpoint
DROP TABLE `webhook_deliveries`;--> statement-breakpoint
ALTER TABLE `__new_webhook_deliveries` RENAME TO `webhook_deliveries`;--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_id` ON `webhook_deliveries` (`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`next_attempt_at`,`url`,`lease_until`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_account` ON `webhook_deliveries` (`account_id`,`mode`,`seq`);--> statement-breakpoint
-- Not drizzle-kit's: dropping `intents` dropped the triggers of 0011_intent_writes; the same again.
CREATE TRIGGER `intent_writes_insert` AFTER INSERT ON `intents` BEGIN UPDATE `intent_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
--> statement-breakpoint
CREATE TRIGGER `intent_writes_update` AFTER UPDATE ON `intents` BEGIN UPDATE `intent_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
--> statement-breakpoint
CREATE TRIGGER `intent_writes_delete` AFTER DELETE ON `intents` BEGIN UPDATE `intent_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
