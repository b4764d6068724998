package io.kubewarden.networkenforcer.common.crd;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * {@code pattern} of the strings of a list field in the generated CRD schema. A pattern costs
 * nothing against the API server's CEL budget, which a rule over every item of a list nested in
 * unbounded lists would exceed.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface ItemPattern {
  String value();
}
