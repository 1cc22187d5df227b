package dev.tributary.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.HexFormat;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeChecks;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.RowType;

/**
 * Paimon internal values (as InternalRow / GenericRow hold them) to and from the oracles' JSON wire
 * encoding, which test/compat/python/oracle.py documents. Every conversion is exact: a value that
 * does not fit its type is an error, never rounded.
 */
final class WireValues {
  private static final HexFormat HEX = HexFormat.of();

  private WireValues() {}

  static Object toInternal(JsonNode value, DataType type) {
    if (value == null || value.isNull()) {
      return null;
    }
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        return value.booleanValue();
      case TINYINT:
        return (byte) value.intValue();
      case SMALLINT:
        return (short) value.intValue();
      case INTEGER:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
        return value.intValue();
      case BIGINT:
        return Long.parseLong(value.asText());
      case FLOAT:
        return (float) toDouble(value);
      case DOUBLE:
        return toDouble(value);
      case DECIMAL:
        DecimalType decimal = (DecimalType) type;
        BigDecimal exact = new BigDecimal(new BigInteger(value.asText()), decimal.getScale());
        Decimal internal = Decimal.fromBigDecimal(exact, decimal.getPrecision(), decimal.getScale());
        if (internal == null) {
          throw new IllegalArgumentException(value.asText() + " does not fit " + type.asSQLString());
        }
        return internal;
      case CHAR:
      case VARCHAR:
        return BinaryString.fromString(value.asText());
      case BINARY:
      case VARBINARY:
        return HEX.parseHex(value.asText());
      case TIMESTAMP_WITHOUT_TIME_ZONE:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return Timestamp.fromEpochMillis(value.path("epochMillis").longValue(), value.path("nanoOfMillis").intValue());
      default:
        throw new IllegalArgumentException("unsupported type " + type.asSQLString());
    }
  }

  static ArrayNode fromInternal(ObjectMapper json, InternalRow row, RowType rowType) {
    ArrayNode values = json.createArrayNode();
    for (int i = 0; i < rowType.getFieldCount(); i++) {
      DataType type = rowType.getTypeAt(i);
      if (row.isNullAt(i)) {
        values.addNull();
        continue;
      }
      switch (type.getTypeRoot()) {
        case BOOLEAN:
          values.add(row.getBoolean(i));
          break;
        case TINYINT:
          values.add(row.getByte(i));
          break;
        case SMALLINT:
          values.add(row.getShort(i));
          break;
        case INTEGER:
        case DATE:
        case TIME_WITHOUT_TIME_ZONE:
          values.add(row.getInt(i));
          break;
        case BIGINT:
          values.add(Long.toString(row.getLong(i)));
          break;
        case FLOAT:
          addDouble(values, row.getFloat(i));
          break;
        case DOUBLE:
          addDouble(values, row.getDouble(i));
          break;
        case DECIMAL:
          DecimalType decimal = (DecimalType) type;
          values.add(row.getDecimal(i, decimal.getPrecision(), decimal.getScale()).toBigDecimal().setScale(decimal.getScale(), RoundingMode.UNNECESSARY).unscaledValue().toString());
          break;
        case CHAR:
        case VARCHAR:
          values.add(row.getString(i).toString());
          break;
        case BINARY:
        case VARBINARY:
          values.add(HEX.formatHex(row.getBinary(i)));
          break;
        case TIMESTAMP_WITHOUT_TIME_ZONE:
        case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
          Timestamp timestamp = row.getTimestamp(i, DataTypeChecks.getPrecision(type));
          ObjectNode wire = values.addObject();
          wire.put("epochMillis", timestamp.getMillisecond());
          wire.put("nanoOfMillis", timestamp.getNanoOfMillisecond());
          break;
        default:
          throw new IllegalArgumentException("unsupported type " + type.asSQLString());
      }
    }
    return values;
  }

  private static double toDouble(JsonNode value) {
    // Strings carry what JSON numbers cannot: "NaN", "Infinity", "-Infinity" and "-0".
    return value.isTextual() ? Double.parseDouble(value.asText()) : value.doubleValue();
  }

  private static void addDouble(ArrayNode values, double value) {
    if (Double.isNaN(value)) {
      values.add("NaN");
    } else if (Double.isInfinite(value)) {
      values.add(value > 0 ? "Infinity" : "-Infinity");
    } else {
      values.add(value);
    }
  }
}
