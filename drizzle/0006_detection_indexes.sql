DROP INDEX `intents_live`;--> statement-breakpoint
DROP INDEX `intents_chain_updated`;--> statement-breakpoint
CREATE INDEX `intents_live` ON `intents` (`chain`,`requestor`,`token_address`,`created_at`,`state`) WHERE state IN ('created','pending','confirmed','dropped');--> statement-breakpoint
CREATE INDEX `intents_chain_updated` ON `intents` (`chain`,`updated_at`,`requestor`,`token_address`,`created_at`,`state`) WHERE state NOT IN ('created','pending','confirmed','dropped');