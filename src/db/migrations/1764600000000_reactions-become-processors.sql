-- Up Migration

-- The side-effect runners were called "reactions", a word the channel already uses for emoji reactions.
-- They are "processors" now (decision 011); their rows, and so their checkpoints, are kept.
ALTER TABLE reaction_checkpoints RENAME TO processor_checkpoints;
ALTER TABLE processor_checkpoints RENAME CONSTRAINT reaction_checkpoints_pkey TO processor_checkpoints_pkey;
ALTER TABLE reaction_dead_letters RENAME TO processor_dead_letters;
ALTER TABLE processor_dead_letters RENAME COLUMN reaction TO processor;
ALTER TABLE processor_dead_letters RENAME CONSTRAINT reaction_dead_letters_pkey TO processor_dead_letters_pkey;

-- Down Migration
ALTER TABLE processor_dead_letters RENAME CONSTRAINT processor_dead_letters_pkey TO reaction_dead_letters_pkey;
ALTER TABLE processor_dead_letters RENAME COLUMN processor TO reaction;
ALTER TABLE processor_dead_letters RENAME TO reaction_dead_letters;
ALTER TABLE processor_checkpoints RENAME CONSTRAINT processor_checkpoints_pkey TO reaction_checkpoints_pkey;
ALTER TABLE processor_checkpoints RENAME TO reaction_checkpoints;
