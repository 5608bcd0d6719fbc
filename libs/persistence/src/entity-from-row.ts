/**
 * An entity from a row a raw statement answered (`RETURNING *`, `SELECT t.*`, or the columns
 * `entityColumns` lists for a named statement), each column converted as TypeORM converts it
 * when it loads the entity itself: for hot statements written in SQL, whose answer is still
 * wanted as the entity.
 */
import { type EntityManager, type EntityTarget, type ObjectLiteral } from 'typeorm';

export function entityFromRow<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  row: Record<string, unknown>,
): T {
  const entity = manager.create(target);
  for (const column of manager.connection.getMetadata(target).columns)
    column.setEntityValue(
      entity,
      manager.connection.driver.prepareHydratedValue(row[column.databaseName], column),
    );
  return entity;
}
