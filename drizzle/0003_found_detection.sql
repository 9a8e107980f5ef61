PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
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
CREATE INDEX `intents_receiver` ON `intents` (`chain`,`requestor`,`token_address`);--> statement-breakpoint
CREATE INDEX `intents_chain_updated` ON `intents` (`chain`,`updated_at`);