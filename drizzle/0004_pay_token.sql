ALTER TABLE `intents` ADD `pay_token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `intents_pay_token` ON `intents` (`pay_token`) WHERE pay_token IS NOT NULL;