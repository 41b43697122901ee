/** The access engine: address grammar, access model, evaluator, translation and migration plan. */
export * from './addr';
export * from './model';
export * from './translate';
export * from './region';
export * from './evaluate';
export { pointsFor, clientsFor, describeClient, type Point } from './points';
export { quickAccessNotes } from './analysis';
export { NO_DIR_FORM, planMigration, migrateText, checkEditsAt, checkEditsReadings, openDirectories, openDirsTouching, indentUnit, type MigrationPlan, type SectionPlan, type PlanNote, type PlanOptions, type PlanRule, type NoteFix, type DirLevelNeeds } from './plan';
export { accessNotes } from './analysis';
export { plansInConfiguration, notesInConfiguration, relabelLines, lineLabel, plansAsIncluded, INCLUDED_NOTE, FRAGMENT_BECAUSE, viewAfterEdits, type ConfigurationView } from './in-configuration';
