DROP INDEX `intents_account_reference`;--> statement-breakpoint
DROP INDEX `intents_tx_signature`;--> statement-breakpoint
CREATE INDEX `intents_account_reference` ON `intents` (`account_id`,`mode`,`reference`) WHERE reference IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `intents_tx_signature` ON `intents` (`chain`,`tx_signature`) WHERE tx_signature IS NOT NULL;