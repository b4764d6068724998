package io.kubewarden.networkenforcer.common.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigData;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.provider.DirectoryConfigProvider;

/**
 * Kafka's {@link DirectoryConfigProvider} (the files of a mounted Secret as config values) that
 * hands private keys on as PKCS#8. Kafka's PEM key store ({@code ssl.keystore.key}) reads PKCS#8
 * only, while cert-manager writes PKCS#1 RSA and SEC1 EC keys: the chart names this class for its
 * {@code dir} provider, so a client key from either works. Every other file passes unchanged.
 */
public class PemKeyDirectoryConfigProvider extends DirectoryConfigProvider {

  @Override
  public ConfigData get(String path) {
    return toPkcs8(super.get(path));
  }

  @Override
  public ConfigData get(String path, Set<String> keys) {
    return toPkcs8(super.get(path, keys));
  }

  private static ConfigData toPkcs8(ConfigData files) {
    Map<String, String> data = new HashMap<>(files.data());
    data.replaceAll((file, content) -> isPkcs1OrSec1(content) ? pkcs8(file, content) : content);
    return new ConfigData(data, files.ttl());
  }

  private static boolean isPkcs1OrSec1(String content) {
    return content != null
        && (content.contains("-----BEGIN RSA PRIVATE KEY-----")
            || content.contains("-----BEGIN EC PRIVATE KEY-----"));
  }

  private static String pkcs8(String file, String content) {
    try {
      return new String(
          PemKeys.toPkcs8Pem(content.getBytes(StandardCharsets.US_ASCII)),
          StandardCharsets.US_ASCII);
    } catch (IOException e) {
      // Never the key itself in the message.
      throw new ConfigException(
          "the private key in " + file + " cannot be read: " + e.getMessage());
    }
  }
}
