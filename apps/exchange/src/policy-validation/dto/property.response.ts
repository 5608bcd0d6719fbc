import { PROPERTY_TYPES, type PropertyType, type PropertyValue } from '@careen/policy';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** A property's value in the documents, as given and as answered. */
export const PROPERTY_VALUE_SCHEMA = {
  description: 'a string, number, boolean or list of strings',
  oneOf: [
    { type: 'string' as const },
    { type: 'number' as const },
    { type: 'boolean' as const },
    { type: 'array' as const, items: { type: 'string' as const } },
  ],
  example: 'amd64',
};

/** A property of a node, deployment or management policy, as stored and answered. */
export class PropertyResponse {
  @ApiProperty({ example: 'careen.arch' }) name!: string;

  @ApiProperty(PROPERTY_VALUE_SCHEMA)
  value!: PropertyValue;

  @ApiPropertyOptional({ enum: PROPERTY_TYPES, description: 'absent when it was not given' })
  type?: PropertyType;
}
