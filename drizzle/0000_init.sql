CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`plan` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`mode` text NOT NULL,
	`hash` text NOT NULL,
	`last4` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash` ON `api_keys` (`hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account` ON `api_keys` (`account_id`);--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`account_id` text NOT NULL,
	`mode` text NOT NULL,
	`intent_id` text NOT NULL,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_id` ON `events` (`id`);--> statement-breakpoint
CREATE INDEX `events_account` ON `events` (`account_id`,`mode`,`seq`);--> statement-breakpoint
CREATE INDEX `events_intent` ON `events` (`intent_id`,`seq`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`account_id` text NOT NULL,
	`mode` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`response_status` integer NOT NULL,
	`response_body` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `mode`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_expiry` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `intents` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
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
	`build_data` text,
	`signed_transaction` text,
	`watch_data` text,
	`snapshot` text NOT NULL,
	`machine_version` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `intents_id` ON `intents` (`id`);--> statement-breakpoint
CREATE INDEX `intents_account_list` ON `intents` (`account_id`,`mode`,`seq`);--> statement-breakpoint
CREATE INDEX `intents_account_state` ON `intents` (`account_id`,`mode`,`state`,`seq`);--> statement-breakpoint
CREATE INDEX `intents_account_reference` ON `intents` (`account_id`,`mode`,`reference`);--> statement-breakpoint
CREATE INDEX `intents_live` ON `intents` (`state`) WHERE state IN ('created','pending','confirmed','dropped');--> statement-breakpoint
CREATE UNIQUE INDEX `intents_tx_signature` ON `intents` (`chain`,`tx_signature`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
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
CREATE UNIQUE INDEX `webhook_deliveries_id` ON `webhook_deliveries` (`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_account` ON `webhook_deliveries` (`account_id`,`mode`,`seq`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`account_id` text NOT NULL,
	`mode` text NOT NULL,
	`url` text NOT NULL,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_expires_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `mode`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
