CREATE TABLE `chain_cursors` (
	`chain` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`chain`, `key`)
);
--> statement-breakpoint
CREATE TABLE `instance_leases` (
	`name` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`pid` integer NOT NULL,
	`host` text NOT NULL,
	`started_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payments` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`account_id` text NOT NULL,
	`mode` text NOT NULL,
	`chain` text NOT NULL,
	`token` text NOT NULL,
	`token_address` text NOT NULL,
	`decimals` integer NOT NULL,
	`amount_base_units` text NOT NULL,
	`from_address` text NOT NULL,
	`to_address` text NOT NULL,
	`tx_signature` text NOT NULL,
	`intent_id` text,
	`status` text NOT NULL,
	`reason` text,
	`detected_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payments_id` ON `payments` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `payments_tx` ON `payments` (`chain`,`tx_signature`);--> statement-breakpoint
CREATE INDEX `payments_account` ON `payments` (`account_id`,`mode`,`seq`);--> statement-breakpoint
CREATE INDEX `payments_intent` ON `payments` (`intent_id`);--> statement-breakpoint
CREATE TABLE `submissions` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`intent_id` text NOT NULL,
	`chain` text NOT NULL,
	`tx_signature` text NOT NULL,
	`signer` text NOT NULL,
	`signed_transaction` text,
	`watch_data` text,
	`source` text NOT NULL,
	`status` text NOT NULL,
	`outcome` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `submissions_tx` ON `submissions` (`chain`,`tx_signature`);--> statement-breakpoint
CREATE INDEX `submissions_intent` ON `submissions` (`intent_id`,`seq`);--> statement-breakpoint
CREATE INDEX `submissions_open` ON `submissions` (`status`) WHERE outcome IS NULL;--> statement-breakpoint
ALTER TABLE `intents` ADD `solana_reference` text;--> statement-breakpoint
ALTER TABLE `intents` ADD `late_payment` text;--> statement-breakpoint
CREATE UNIQUE INDEX `intents_solana_reference` ON `intents` (`solana_reference`) WHERE solana_reference IS NOT NULL;