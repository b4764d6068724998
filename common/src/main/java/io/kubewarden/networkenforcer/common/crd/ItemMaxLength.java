package io.kubewarden.networkenforcer.common.crd;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * {@code maxLength} of the strings of a list field in the generated CRD schema. It bounds the
 * estimated cost of the CEL rules that look at each item, which the API server checks when it
 * accepts the CRD.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface ItemMaxLength {
  long value();
}
