-- A count of intent row writes, kept by the database for every connection (the server's, a CLI
-- command's, an older binary's): the periodic live scan reads the rows again only when some
-- connection other than the server's own batches wrote intents (src/store/changed-elsewhere.ts).
CREATE TABLE `intent_writes` (`k` integer PRIMARY KEY NOT NULL, `n` integer NOT NULL);
--> statement-breakpoint
INSERT INTO `intent_writes` (`k`, `n`) VALUES (0, 0);
--> statement-breakpoint
CREATE TRIGGER `intent_writes_insert` AFTER INSERT ON `intents` BEGIN UPDATE `intent_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
--> statement-breakpoint
CREATE TRIGGER `intent_writes_update` AFTER UPDATE ON `intents` BEGIN UPDATE `intent_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
--> statement-breakpoint
CREATE TRIGGER `intent_writes_delete` AFTER DELETE ON `intents` BEGIN UPDATE `intent_writes` SET `n` = `n` + 1 WHERE `k` = 0; END;
